set(TB_MODULE_SOURCES mainwindow.cpp runcontroller.cpp)
