set(TB_MODULE_SOURCES advisor.cpp checkpointer.cpp eventqueue.cpp memoryestimate.cpp runconfig.cpp
                      runfailure.cpp stepbench.cpp trainer.cpp)
