set(TB_MODULE_SOURCES columnscrollarea.cpp configform.cpp datasetpanel.cpp lrpreview.cpp memorybar.cpp
                      modelpanel.cpp setuppanel.cpp)
