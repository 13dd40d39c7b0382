set(TB_MODULE_SOURCES boxes.cpp ciou.cpp cocoeval.cpp detectionloss.cpp headdecode.cpp
                      taskalignedassigner.cpp)
