set(TB_MODULE_SOURCES profilepanel.cpp profiletable.cpp rooflinechart.cpp)
