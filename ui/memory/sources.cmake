set(TB_MODULE_SOURCES llmmemorychart.cpp llmmemorydialog.cpp)
