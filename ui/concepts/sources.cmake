set(TB_FOLDER_SOURCES conceptcards.cpp)
