set(TB_MODULE_SOURCES eventnames.cpp eventqueue.cpp profilereport.cpp)
