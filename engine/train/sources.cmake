set(TB_MODULE_SOURCES advisor.cpp checkpointer.cpp memoryestimate.cpp runconfig.cpp runstatus.cpp
                      stepbench.cpp
                      trainer.cpp)
