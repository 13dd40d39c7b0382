set(TB_MODULE_SOURCES advisor.cpp checkpointer.cpp runconfig.cpp stepbench.cpp trainer.cpp)
