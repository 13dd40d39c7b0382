set(TB_MODULE_SOURCES dataparallel.cpp gradientreducer.cpp mpicommunicator.cpp)
