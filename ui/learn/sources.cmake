set(TB_MODULE_SOURCES learnpanel.cpp lessonview.cpp)
