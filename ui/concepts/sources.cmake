set(TB_MODULE_SOURCES conceptcards.cpp)
