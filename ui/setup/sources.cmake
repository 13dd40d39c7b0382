set(TB_MODULE_SOURCES configform.cpp datasetpanel.cpp lrpreview.cpp memorybar.cpp modelpanel.cpp
                      setuppanel.cpp)
