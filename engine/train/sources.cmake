set(TB_MODULE_SOURCES checkpointer.cpp runconfig.cpp stepbench.cpp trainer.cpp)
