set(TB_FOLDER_SOURCES runcontroller.cpp)
