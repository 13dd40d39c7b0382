set(TB_MODULE_SOURCES mainwindow.cpp mainwindowteaching.cpp mainwindowmenus.cpp runcontroller.cpp
                      pagescrollarea.cpp unixsignalwatcher.cpp)
