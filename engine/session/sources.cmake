set(TB_MODULE_SOURCES localjobsession.cpp runsession.cpp)
