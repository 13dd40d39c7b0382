set(TB_MODULE_SOURCES helpdocuments.cpp helpwindow.cpp)
