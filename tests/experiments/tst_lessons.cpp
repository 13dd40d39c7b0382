// Lesson files: the built-in ones parse and apply, a lesson round-trips through its JSON, and
// each kind of mistake a teacher can make fails naming the file and the key.
#include "core/errors.h"
#include "experiments/lesson.h"
#include "train/runconfig.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace tb;

namespace {
const std::set<std::string> kCards = {"num_workers", "pin_memory", "data-starved"};

nlohmann::json goodLesson() {
    return nlohmann::json::parse(R"({
        "title": "Data loading",
        "goal": "See the loader set the pace.",
        "setup": {"num_workers": 0, "batch_size": 64, "dataset": "fashion-mnist"},
        "controls": ["num_workers", "batch_size"],
        "concepts": ["num_workers", "data-starved"],
        "experiments": ["num_workers"],
        "steps": ["Train.", "Raise num_workers."]
    })");
}

// The field of the ConfigError that parsing `json` throws ("" when it does not throw).
QString errorKey(const nlohmann::json& json, const std::string& source = "mine.json") {
    try {
        parseLesson(json, "mine", source, kCards);
    } catch (const ConfigError& e) {
        return QString::fromStdString(e.field());
    }
    return {};
}
} // namespace

class TestLessons : public QObject {
    Q_OBJECT
private slots:
    void builtinLessonsParseAndApply() {
        const std::vector<Lesson>& lessons = builtinLessons();
        QVERIFY2(lessons.size() >= 6,
                 "data loading, mixed precision, accumulation, lr, roofline, llm memory");
        QStringList ids;
        for (const Lesson& l : lessons) {
            ids << QString::fromStdString(l.id);
            QVERIFY(!l.title.empty() && !l.steps.empty() && !l.controls.empty());
            const RunConfig c = lessonConfig(RunConfig(), l);
            c.validate();
            QVERIFY(c.toJson() != RunConfig().toJson());
            if (l.id == "data-loading") {
                QCOMPARE(c.numWorkers, 0);
                QCOMPARE(c.batchSize, 64);
                QVERIFY(!c.pinMemory);
            }
        }
        for (const char* id : {"data-loading", "mixed-precision", "accumulation-and-memory",
                               "learning-rate", "roofline", "llm-memory"})
            QVERIFY2(ids.contains(id), id);
    }

    void roundTripsThroughItsJson() {
        const Lesson a = parseLesson(goodLesson(), "mine", "mine.json", kCards);
        QCOMPARE(a.setup.size(), std::size_t{3});
        QCOMPARE(a.cards, (std::vector<std::string>{"num_workers", "data-starved"}));
        const Lesson b = parseLesson(lessonToJson(a), "mine", "mine.json", kCards);
        QVERIFY(a == b);

        QTemporaryDir dir;
        const QString path = dir.filePath("mine.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(lessonToJson(a).dump(2)));
        f.close();
        QVERIFY(loadLesson(path.toStdString(), kCards) == a);
    }

    void mistakesNameTheFileAndKey_data() {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("patch"); // JSON merge patch onto the good lesson
        QTest::newRow("no title") << "mine.json: title"
                                  << R"({"title": null})";
        QTest::newRow("bad setup value") << "mine.json: setup.batch_size"
                                         << R"({"setup": {"batch_size": 0}})";
        QTest::newRow("unknown setup key") << "mine.json: setup.num_wokers"
                                           << R"({"setup": {"num_wokers": 2}})";
        QTest::newRow("unknown control") << "mine.json: controls[1]"
                                         << R"({"controls": ["lr", "speed"]})";
        QTest::newRow("unknown card") << "mine.json: concepts[0]"
                                      << R"({"concepts": ["dataload"]})";
        QTest::newRow("unknown experiment") << "mine.json: experiments[0]"
                                            << R"({"experiments": ["workers"]})";
        QTest::newRow("no steps") << "mine.json: steps"
                                  << R"({"steps": []})";
        QTest::newRow("step not text") << "mine.json: steps[1]"
                                       << R"({"steps": ["a", 3]})";
        QTest::newRow("unknown key") << "mine.json: instructions"
                                     << R"({"instructions": "x"})";
    }
    void mistakesNameTheFileAndKey() {
        QFETCH(QString, field);
        QFETCH(QString, patch);
        nlohmann::json lesson = goodLesson();
        lesson.merge_patch(nlohmann::json::parse(patch.toStdString()));
        QCOMPARE(errorKey(lesson), field);
    }

    void aPresetFileBesideTheLessonIsAccepted() {
        QTemporaryDir dir;
        QFile preset(dir.filePath("my-workers.json"));
        QVERIFY(preset.open(QIODevice::WriteOnly));
        preset.write(R"({"title": "t", "arms": [{"label": "a", "set": {"num_workers": 0}},
                                                {"label": "b", "set": {"num_workers": 2}}]})");
        preset.close();
        nlohmann::json lesson = goodLesson();
        lesson["experiments"] = {"num_workers", "my-workers.json"};
        QCOMPARE(errorKey(lesson, dir.filePath("lesson.json").toStdString()), QString());
        QVERIFY(!errorKey(lesson).isEmpty()); // elsewhere, the file is not beside it
    }

    void notJsonNamesTheFile() {
        QTemporaryDir dir;
        const QString path = dir.filePath("broken.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"title\": ");
        f.close();
        try {
            loadLesson(path.toStdString());
            QFAIL("a broken file was read");
        } catch (const std::exception& e) {
            QVERIFY2(QString(e.what()).contains(path), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestLessons)
#include "tst_lessons.moc"
