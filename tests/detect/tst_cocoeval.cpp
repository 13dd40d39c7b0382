// COCO's box evaluation (detect/cocoeval): crafted scenes whose AP is worked out by hand, and
// every scene against COCO's algorithm written from its definition in numpy
// (tests/torch/cocoeval_reference.py, which also runs pycocotools where it is installed) on the
// same ground truth and results as COCO JSON files: the same AP per class and threshold, mAP50
// and mAP50-95, to 1e-12.
#include "detect/cocoeval.h"

#include "backend/kernels/random_math.h"
#include "core/errors.h"
#include "support/torchreference.h"

#include <nlohmann/json.hpp>

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <functional>

using namespace tb;
using namespace tb::detect;

namespace {

struct Scene {
    std::vector<GroundTruth> truth;
    std::vector<Detection> detections;
    std::vector<int64_t> images;
    std::vector<int> categories;
};

GroundTruth gt(int64_t image, int category, Box box, bool crowd = false) {
    return {image, category, box, crowd, -1};
}
Detection det(int64_t image, int category, Box box, double score) {
    return {image, category, box, score};
}

// Each ground truth found once, exactly.
Scene perfect() {
    Scene s{{}, {}, {1, 2}, {1, 2}};
    s.truth = {gt(1, 1, {0, 0, 10, 10}), gt(1, 2, {20, 20, 5, 8}), gt(2, 1, {3, 4, 30, 12})};
    for (const GroundTruth& g : s.truth)
        s.detections.push_back(det(g.image, g.category, g.box, 0.9));
    return s;
}

// One box found twice: first at IoU 0.62 with the higher score, then exactly. At IoU 0.50 to
// 0.60 the first matches and the second is a false positive after it (AP 1); from 0.65 the
// first misses and the second matches after it (precision 1/2 at full recall: AP 0.5).
Scene duplicates() {
    Scene s{{gt(1, 1, {0, 0, 10, 10})}, {}, {1}, {1}};
    s.detections = {det(1, 1, {0, 0, 10, 6.2}, 0.95), det(1, 1, {0, 0, 10, 10}, 0.9)};
    return s;
}

// A crowd region holding three detections (ignored, not false positives) beside one plain box
// found once: AP 1. Without the crowd flag the three would cost precision.
Scene crowd() {
    Scene s{{gt(1, 1, {0, 0, 100, 100}, true), gt(1, 1, {200, 200, 20, 20})}, {}, {1}, {1}};
    s.detections = {det(1, 1, {10, 10, 20, 20}, 0.99), det(1, 1, {50, 50, 10, 10}, 0.98),
                    det(1, 1, {70, 5, 25, 25}, 0.97), det(1, 1, {200, 200, 20, 20}, 0.5)};
    return s;
}

// Images without boxes (their detections are false positives), images whose boxes nobody
// found (misses) and images with neither.
Scene emptyImages() {
    Scene s{{gt(1, 1, {0, 0, 10, 10}), gt(3, 1, {5, 5, 10, 10})}, {}, {1, 2, 3, 4}, {1}};
    s.detections = {det(1, 1, {0, 0, 10, 10}, 0.6), det(2, 1, {0, 0, 10, 10}, 0.8)};
    return s;
}

// Category 3 has detections but no ground truth and category 4 nothing: both are left out of
// the means; category 1 is found perfectly, so mAP is 1.
Scene classWithoutTruth() {
    Scene s{{gt(1, 1, {0, 0, 10, 10})}, {}, {1}, {1, 3, 4}};
    s.detections = {det(1, 1, {0, 0, 10, 10}, 0.7), det(1, 3, {0, 0, 10, 10}, 0.9)};
    return s;
}

// Equal scores: the order detections come in decides, within an image and across images.
Scene ties() {
    Scene s{{gt(1, 1, {0, 0, 10, 10}), gt(2, 1, {0, 0, 10, 10}), gt(2, 1, {50, 50, 10, 10})},
            {},
            {1, 2},
            {1}};
    s.detections = {det(2, 1, {100, 100, 5, 5}, 0.5), det(1, 1, {0, 0, 10, 10}, 0.5),
                    det(2, 1, {50, 50, 10, 10}, 0.5), det(2, 1, {1, 0, 10, 10}, 0.5),
                    det(1, 1, {0, 1, 10, 10}, 0.5)};
    return s;
}

// 120 detections on one image: only the best 100 count.
Scene overTheCap() {
    Scene s{{}, {}, {1}, {1}};
    for (int i = 0; i < 30; ++i)
        s.truth.push_back(gt(1, 1, {i * 20.0, 0, 15, 15}));
    for (int i = 0; i < 120; ++i)
        s.detections.push_back(det(1, 1, {(i % 30) * 20.0 + (i / 30), 0, 15, 15}, 1.0 - i * 0.001));
    return s;
}

// A seeded scene: 24 images, 4 categories, boxes jittered, missed, duplicated and invented,
// a few crowds, scores quantised so that ties happen.
Scene randomScene() {
    Scene s{{}, {}, {}, {1, 2, 5, 7}};
    uint64_t draw = 0;
    const auto u = [&] { return math::uniform01(2024, draw++); };
    for (int64_t image = 1; image <= 24; ++image) {
        s.images.push_back(image);
        const int boxes = static_cast<int>(u() * 6);
        for (int b = 0; b < boxes; ++b) {
            const int category = s.categories[static_cast<std::size_t>(u() * 4) % 4];
            const Box box{u() * 200, u() * 200, 4 + u() * 100, 4 + u() * 100};
            const bool isCrowd = u() < 0.08;
            s.truth.push_back(gt(image, category, box, isCrowd));
            const int found = u() < 0.2 ? 0 : u() < 0.8 ? 1 : 2;
            for (int k = 0; k < found; ++k) {
                const Box jittered{box.x + (u() - 0.5) * box.w * 0.4,
                                   box.y + (u() - 0.5) * box.h * 0.4, box.w * (0.7 + 0.6 * u()),
                                   box.h * (0.7 + 0.6 * u())};
                s.detections.push_back(det(image, category, jittered, std::round(u() * 20) / 20));
            }
        }
        for (int k = static_cast<int>(u() * 3); k > 0; --k)
            s.detections.push_back(det(image, s.categories[static_cast<std::size_t>(u() * 4) % 4],
                                       {u() * 200, u() * 200, 10 + u() * 50, 10 + u() * 50},
                                       std::round(u() * 20) / 20));
    }
    return s;
}

const std::map<QString, std::function<Scene()>>& scenes() {
    static const std::map<QString, std::function<Scene()>> all = {
        {"perfect", perfect},
        {"duplicates", duplicates},
        {"crowd", crowd},
        {"empty-images", emptyImages},
        {"class-without-truth", classWithoutTruth},
        {"ties", ties},
        {"over-the-cap", overTheCap},
        {"random", randomScene}};
    return all;
}

// The scene as COCO's files: the ground truth (images, categories, annotations with area and
// iscrowd) and the results list.
void writeCocoFiles(const Scene& s, const std::string& truthPath, const std::string& resultsPath) {
    nlohmann::json truth = {{"images", nlohmann::json::array()},
                            {"categories", nlohmann::json::array()},
                            {"annotations", nlohmann::json::array()}};
    for (int64_t image : s.images)
        truth["images"].push_back({{"id", image}});
    for (int category : s.categories)
        truth["categories"].push_back({{"id", category}, {"name", std::to_string(category)}});
    int id = 1;
    for (const GroundTruth& g : s.truth)
        truth["annotations"].push_back({{"id", id++},
                                        {"image_id", g.image},
                                        {"category_id", g.category},
                                        {"bbox", {g.box.x, g.box.y, g.box.w, g.box.h}},
                                        {"area", g.box.area()},
                                        {"iscrowd", g.crowd ? 1 : 0}});
    nlohmann::json results = nlohmann::json::array();
    for (const Detection& d : s.detections)
        results.push_back({{"image_id", d.image},
                           {"category_id", d.category},
                           {"bbox", {d.box.x, d.box.y, d.box.w, d.box.h}},
                           {"score", d.score}});
    std::ofstream(truthPath) << truth.dump();
    std::ofstream(resultsPath) << results.dump();
}

CocoEvalResult evaluate(const Scene& s, const CocoEvalOptions& options = {}) {
    return evaluateCoco(s.truth, s.detections, s.images, s.categories, options);
}

} // namespace

class TestCocoEval : public QObject {
    Q_OBJECT
private slots:
    void handWorkedScenes() {
        QCOMPARE(evaluate(perfect()).map5095, 1.0);
        const CocoEvalResult dup = evaluate(duplicates());
        QCOMPARE(dup.map50, 1.0);
        const std::vector<double> dupAp{1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
        QCOMPARE(dup.classes[0].ap.size(), dupAp.size());
        for (std::size_t t = 0; t < dupAp.size(); ++t) // precision is tp / (tp + fp + 2^-52)
            QVERIFY(std::abs(dup.classes[0].ap[t] - dupAp[t]) < 1e-12);
        QCOMPARE(evaluate(crowd()).map5095, 1.0);
        Scene notCrowd = crowd();
        notCrowd.truth[0].crowd = false;
        QVERIFY(evaluate(notCrowd).map50 < 0.5);
        // Image 2's detection (score 0.8) is a false positive before image 1's hit; image 3's
        // box is missed: recall 1/2 at precision 1/2.
        const CocoEvalResult empty = evaluate(emptyImages());
        QCOMPARE(empty.classes[0].recall50, 0.5);
        QCOMPARE(empty.map50, 51 * 0.5 / 101);
        const CocoEvalResult without = evaluate(classWithoutTruth());
        QCOMPARE(without.classes.size(), std::size_t{3});
        QVERIFY(without.classes[1].ap.empty() && without.classes[2].ap.empty());
        QCOMPARE(without.map5095, 1.0);
        const CocoEvalResult capped = evaluate(overTheCap());
        QCOMPARE(capped.classes[0].detections, int64_t{100});
    }

    void refusesBoxesOnUnlistedImages() {
        Scene s = perfect();
        s.detections.push_back(det(9, 1, {0, 0, 1, 1}, 0.1));
        try {
            evaluate(s);
            QFAIL("a detection on image 9 was accepted");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("image 9") != std::string::npos, e.what());
        }
    }

    void matchesCocosAlgorithm_data() {
        QTest::addColumn<QString>("scene");
        QTest::addColumn<double>("minArea");
        QTest::addColumn<double>("maxArea");
        for (const auto& [name, make] : scenes())
            QTest::newRow(qPrintable(name)) << name << 0.0 << 1e10;
        // COCO's medium objects: boxes outside 32^2..96^2 ignored rather than counted.
        QTest::newRow("random-medium") << QString("random") << 1024.0 << 9216.0;
    }
    void matchesCocosAlgorithm() {
        if (const QString why = test::torchUnavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        QFETCH(QString, scene);
        QFETCH(double, minArea);
        QFETCH(double, maxArea);
        const Scene s = scenes().at(scene)();
        QTemporaryDir dir;
        const QString truthPath = dir.filePath("truth.json"),
                      resultsPath = dir.filePath("results.json");
        writeCocoFiles(s, truthPath.toStdString(), resultsPath.toStdString());
        const CocoEvalResult ours = evaluate(s, {100, minArea, maxArea});
        const QJsonObject ref =
            test::runTorchScript("cocoeval_reference.py", {truthPath, resultsPath, "--area",
                                                           QString::number(minArea, 'g', 17),
                                                           QString::number(maxArea, 'g', 17)});
        qInfo("%s: mAP50 %.6f, mAP50-95 %.6f; pycocotools: %s", qPrintable(scene), ours.map50,
              ours.map5095,
              ref["pycocotools"].isObject()
                  ? qPrintable(QStringLiteral("mAP50 %1, mAP50-95 %2")
                                   .arg(ref["pycocotools"]["map50"].toDouble(), 0, 'f', 6)
                                   .arg(ref["pycocotools"]["map5095"].toDouble(), 0, 'f', 6))
                  : qPrintable(ref["pycocotools"].toString()));
        QVERIFY(std::abs(ours.map50 - ref["map50"].toDouble()) < 1e-12);
        QVERIFY(std::abs(ours.map5095 - ref["map5095"].toDouble()) < 1e-12);
        if (ref["pycocotools"].isObject()) {
            QVERIFY(std::abs(ours.map50 - ref["pycocotools"]["map50"].toDouble()) < 1e-12);
            QVERIFY(std::abs(ours.map5095 - ref["pycocotools"]["map5095"].toDouble()) < 1e-12);
        }
        const QJsonObject classes = ref["classes"].toObject();
        QCOMPARE(static_cast<std::size_t>(classes.size()), ours.classes.size());
        for (const ClassResult& c : ours.classes) {
            const QJsonValue want = classes[QString::number(c.category)];
            QCOMPARE(c.ap.empty(), want.isNull());
            for (std::size_t t = 0; t < c.ap.size(); ++t)
                QVERIFY2(std::abs(c.ap[t] - want.toArray()[static_cast<int>(t)].toDouble()) < 1e-12,
                         qPrintable(QStringLiteral("category %1, threshold %2: %3 vs %4")
                                        .arg(c.category)
                                        .arg(cocoIouThresholds()[t])
                                        .arg(c.ap[t])
                                        .arg(want.toArray()[static_cast<int>(t)].toDouble())));
            if (!c.ap.empty())
                QCOMPARE(c.recall50, ref["recall50"][QString::number(c.category)].toDouble());
        }
    }
};

QTEST_GUILESS_MAIN(TestCocoEval)
#include "tst_cocoeval.moc"
