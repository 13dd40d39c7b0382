set(TB_MODULE_SOURCES advisor.cpp checkpointer.cpp eventqueue.cpp memoryestimate.cpp runconfig.cpp
                      runfailure.cpp runstatus.cpp stepbench.cpp trainer.cpp)
