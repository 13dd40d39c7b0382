set(TB_FOLDER_SOURCES hardwarepanel.cpp)
