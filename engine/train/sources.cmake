set(TB_MODULE_SOURCES advisor.cpp checkpointer.cpp memoryestimate.cpp runconfig.cpp stepbench.cpp
                      trainer.cpp)
