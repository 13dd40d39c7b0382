set(TB_FOLDER_SOURCES mainwindow.cpp runcontroller.cpp)
