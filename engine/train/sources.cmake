set(TB_MODULE_SOURCES advisor.cpp checkpointer.cpp devicechoices.cpp eventqueue.cpp memoryestimate.cpp
                      modelplan.cpp runconfig.cpp runfailure.cpp runstatus.cpp stepbench.cpp
                      trainer.cpp)
