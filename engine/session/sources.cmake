set(TB_MODULE_SOURCES runsession.cpp)
