// What trainbench-cli writes about itself: the README's config-key tables are the schema's (run
// `trainbench-cli config-keys --markdown` and paste it between the README's markers when a key
// changes), the manual pages name every command and key and render without warnings, and the
// bash completion completes commands, options and `--set` keys.
#include "clirun.h"
#include "support/buildtree.h"
#include "train/runconfig.h"

#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace tb;

namespace {

// What `bash` completes for the words of a command line, the last one being completed.
QStringList completions(const QString& script, const QStringList& words) {
    QString line;
    for (const QString& w : words)
        line += " '" + w + "'";
    QProcess bash;
    bash.start("bash", {"-c", "source '" + script + "'; COMP_WORDS=(" + line +
                                  "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _trainbench_cli; "
                                  "printf '%s\\n' \"${COMPREPLY[@]}\""});
    bash.waitForFinished();
    return QString::fromUtf8(bash.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
}

} // namespace

class TestCliDocs : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_home;

private slots:
    void readmeListsTheConfigKeysOfTheSchema() {
        const test::CliResult r = test::runCli({"config-keys", "--markdown"}, m_home.path());
        QCOMPARE(r.code, 0);
        QFile readme(test::sourcePath("README.md"));
        QVERIFY(readme.open(QIODevice::ReadOnly | QIODevice::Text));
        const QString text = QString::fromUtf8(readme.readAll());
        const QString begin = "<!-- config-keys: begin -->\n", end = "<!-- config-keys: end -->";
        const qsizetype from = text.indexOf(begin), to = text.indexOf(end);
        QVERIFY2(from >= 0 && to > from, "README.md lacks the config-keys markers");
        const QString inReadme = text.mid(from + begin.size(), to - from - begin.size());
        QVERIFY2(inReadme.trimmed() == r.out.trimmed(),
                 "README.md's config keys differ from the schema: paste the output of "
                 "`trainbench-cli config-keys --markdown` between its config-keys markers");
        for (const ConfigField& f : configSchema())
            QVERIFY2(inReadme.contains("| `" + QString::fromStdString(f.key) + "` |"),
                     f.key.c_str());
        // The same on every machine: a machine's own limit is printed as its rule.
        QVERIFY(inReadme.contains("| `threads` | int 0..hardware threads |"));
    }

    void manualPagesNameEveryCommandAndKey() {
        const test::CliResult cli = test::runCli({"man", "trainbench-cli"}, m_home.path());
        QCOMPARE(cli.code, 0);
        QVERIFY(cli.out.startsWith(".TH trainbench-cli 1"));
        for (const ConfigField& f : configSchema()) {
            QString key = QString::fromStdString(f.key).replace('-', "\\-");
            QVERIFY2(cli.out.contains("\\fB" + key + "\\fR ("), f.key.c_str());
        }
        for (const char* command : {"train", "runs", "experiment", "doctor", "completion", "man"})
            QVERIFY2(cli.out.contains(QString(".TP\n\\fB%1\\fR").arg(command)), command);
        const test::CliResult window = test::runCli({"man", "trainbench"}, m_home.path());
        QCOMPARE(window.code, 0);
        QVERIFY(window.out.contains("\\-\\-screenshot"));
        if (QStandardPaths::findExecutable("groff").isEmpty())
            QSKIP("groff is not installed: the pages were not rendered");
        for (const QString& page : {cli.out, window.out}) {
            QProcess groff;
            groff.start("groff", {"-man", "-Tutf8", "-ww", "-z"});
            groff.write(page.toUtf8());
            groff.closeWriteChannel();
            QVERIFY(groff.waitForFinished());
            QCOMPARE(groff.exitCode(), 0);
            QCOMPARE(QString::fromUtf8(groff.readAllStandardError()), QString());
        }
    }

    void bashCompletesCommandsOptionsAndKeys() {
        if (QStandardPaths::findExecutable("bash").isEmpty())
            QSKIP("bash is not installed");
        const test::CliResult r = test::runCli({"completion", "bash"}, m_home.path());
        QCOMPARE(r.code, 0);
        const QString script = m_home.filePath("trainbench-cli.bash");
        QFile file(script);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(r.out.toUtf8());
        file.close();
        QCOMPARE(completions(script, {"trainbench-cli", "exp"}),
                 (QStringList{"experiment", "export"}));
        QCOMPARE(completions(script, {"trainbench-cli", "pre"}), QStringList{"predict"});
        QCOMPARE(completions(script, {"trainbench-cli", "train", "--n"}),
                 (QStringList{"--nproc", "--no-db"}));
        QCOMPARE(completions(script, {"trainbench-cli", "train", "--set", "precision="}),
                 (QStringList{"precision=32", "precision=16-mixed", "precision=bf16-mixed"}));
        QCOMPARE(completions(script, {"trainbench-cli", "train", "--set", "sync_b"}),
                 (QStringList{"sync_batchnorm=true", "sync_batchnorm=false"}));
        QCOMPARE(completions(script, {"trainbench-cli", "runs", "wa"}), QStringList{"watch"});
        QVERIFY(completions(script, {"trainbench-cli", "experiment", "run", "dd"}).contains("ddp"));
    }
};

QTEST_GUILESS_MAIN(TestCliDocs)
#include "tst_cli_docs.moc"
