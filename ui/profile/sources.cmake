set(TB_MODULE_SOURCES checkpointprofiler.cpp profilecomparisontable.cpp profilepanel.cpp profiletable.cpp rooflinechart.cpp)
