set(TB_MODULE_SOURCES sweepcontroller.cpp sweepdialog.cpp sweeppanel.cpp)
