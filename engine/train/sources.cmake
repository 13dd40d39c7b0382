set(TB_MODULE_SOURCES advisor.cpp checkpointer.cpp configchecks.cpp devicechoices.cpp memoryestimate.cpp
                      modelplan.cpp runconfig.cpp runfailure.cpp stepbench.cpp stepplan.cpp stepprofiler.cpp devicebatchslots.cpp
                      layerprofile.cpp llmmemory.cpp predictor.cpp profilecomparison.cpp pretrained.cpp pretrainedinput.cpp textgenerator.cpp tokenmetrics.cpp
                      detectionobjective.cpp detectionvalidation.cpp detector.cpp detectorevaluation.cpp detectorgallery.cpp
                      trainedmodel.cpp trainer.cpp
                      segmentationvalidation.cpp segmenter.cpp segmenterevaluation.cpp segmentergallery.cpp validation.cpp validationtally.cpp)
