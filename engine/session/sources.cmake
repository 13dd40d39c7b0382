set(TB_MODULE_SOURCES localjobsession.cpp profilesession.cpp runsession.cpp)
