set(TB_MODULE_SOURCES confusionmodel.cpp drawingcanvas.cpp predictionspanel.cpp sampleimage.cpp
                      tryitpanel.cpp generatepanel.cpp exportmodeldialog.cpp
                      boxpainter.cpp classtable.cpp detectiongallery.cpp detectionpage.cpp filechoosers.cpp
                      galleryframe.cpp maskpainter.cpp segmentationgallery.cpp segmentationpage.cpp)
