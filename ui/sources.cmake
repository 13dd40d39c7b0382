set(TB_MODULE_SOURCES mainwindow.cpp mainwindowmenus.cpp runcontroller.cpp)
