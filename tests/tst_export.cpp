// SPDX-License-Identifier: GPL-3.0-or-later
// grademl export: PNG decodes at the asked size, SVG is XML with text elements, PDF starts with
// %PDF and carries fonts (text stays text); bad arguments are usage errors.
#include "testutil.h"

#include <QColor>
#include <QDomDocument>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

class TestExport : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_project;

    int cli(const QStringList &args, QByteArray *err = nullptr)
    {
        const auto r = gmltest::runCli(args);
        if (err)
            *err = r.err;
        return r.code;
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_project = m_dir.filePath(QStringLiteral("demo.grademl"));
        QCOMPARE(cli({QStringLiteral("import"), QStringLiteral(GRADEML_DEMO),
                      QStringLiteral("--project"), m_project}),
                 0);
    }

    void png()
    {
        const QString out = m_dir.filePath(QStringLiteral("t.png"));
        QByteArray err;
        QCOMPARE(cli({QStringLiteral("export"), m_project, QStringLiteral("--view"),
                      QStringLiteral("timeline"), QStringLiteral("--out"), out,
                      QStringLiteral("--size"), QStringLiteral("1000x300")},
                     &err),
                 0);
        const QImage img(out);
        QVERIFY2(!img.isNull(), err.constData());
        QCOMPARE(img.width(), 1000);
        QVERIFY(img.height() >= 300); // grows to hold every row
        // Not blank: slices are coloured, the background is near white.
        int coloured = 0;
        for (int y = 0; y < img.height(); y += 3)
            for (int x = 400; x < img.width(); x += 3)
                coloured += QColor(img.pixel(x, y)).hsvSaturation() > 60;
        QVERIFY(coloured > 100);
    }

    void svgHasTextElements()
    {
        const QString out = m_dir.filePath(QStringLiteral("t.svg"));
        QCOMPARE(cli({QStringLiteral("export"), m_project, QStringLiteral("--run"),
                      QStringLiteral("demo"), QStringLiteral("--out"), out}),
                 0);
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QDomDocument doc;
        QString error;
        int line = 0;
        QVERIFY2(doc.setContent(&f, &error, &line),
                 qPrintable(QStringLiteral("%1 at line %2").arg(error).arg(line)));
        const auto texts = doc.elementsByTagName(QStringLiteral("text"));
        QVERIFY(texts.count() > 10);
        QStringList all;
        for (int i = 0; i < texts.count(); ++i)
            all << texts.at(i).toElement().text();
        QVERIFY2(all.join(QLatin1Char('|')).contains(QStringLiteral("ProfilerStep#0")),
                 qPrintable(all.join(QLatin1Char('|'))));
        QVERIFY(all.join(QLatin1Char('|')).contains(QStringLiteral("stream 7")));
    }

    // Issue 36: a paper figure: chosen tracks, a width in cm at a DPI, no window chrome.
    void paperFigure()
    {
        const QString png = m_dir.filePath(QStringLiteral("paper.png"));
        QByteArray err;
        QCOMPARE(cli({QStringLiteral("export"), m_project, QStringLiteral("--out"), png,
                      QStringLiteral("--tracks"), QStringLiteral("stream"),
                      QStringLiteral("--width-cm"), QStringLiteral("8.5"), QStringLiteral("--dpi"),
                      QStringLiteral("300"), QStringLiteral("--no-chrome")},
                     &err),
                 0);
        const QImage img(png);
        QVERIFY2(!img.isNull(), err.constData());
        QVERIFY2(qAbs(img.width() - 1004) <= 1,
                 qPrintable(QString::number(img.width()))); // 8.5 cm at 300 dpi, to the pixel
        QCOMPARE(qRound(img.dotsPerMeterX() * 0.0254), 300);
        // Four stream rows and their GPU and run rows: far shorter than the 12,000-px figure of
        // every track.
        QVERIFY2(img.height() < 900, qPrintable(QString::number(img.height())));
        // SVG: the chosen tracks only, and no chrome text.
        const QString svg = m_dir.filePath(QStringLiteral("paper.svg"));
        QCOMPARE(cli({QStringLiteral("export"), m_project, QStringLiteral("--out"), svg,
                      QStringLiteral("--tracks"), QStringLiteral("stream 7"),
                      QStringLiteral("--width-cm"), QStringLiteral("17"),
                      QStringLiteral("--no-chrome")}),
                 0);
        QFile f(svg);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(f.readAll());
        QVERIFY(text.contains(QStringLiteral("stream 7")));
        QVERIFY(!text.contains(QStringLiteral("stream 20")));
        QVERIFY(!text.contains(QStringLiteral("thread 4000")));
        QVERIFY(!text.contains(QStringLiteral("Overview")));
        QVERIFY(!text.contains(QStringLiteral("window ")));
        // A regex matching nothing, and sizes out of range, are named.
        QCOMPARE(cli({QStringLiteral("export"), m_project, QStringLiteral("--out"), svg,
                      QStringLiteral("--tracks"), QStringLiteral("nothing-like-this")},
                     &err),
                 1);
        QVERIFY2(err.contains("no track matches --tracks"), err.constData());
        QCOMPARE(cli({QStringLiteral("export"), m_project, QStringLiteral("--out"), svg,
                      QStringLiteral("--width-cm"), QStringLiteral("900")},
                     &err),
                 2);
        QCOMPARE(cli({QStringLiteral("export"), m_project, QStringLiteral("--out"), png,
                      QStringLiteral("--dpi"), QStringLiteral("5")},
                     &err),
                 2);
    }

    // Issue 73: the CLI draws what the studio's Export Figure draws by default (no chrome, its
    // short labels, the notes), and --range takes times after the run's start with units, or
    // @NS on the project clock, as every other command does.
    void defaultsAreTheStudios()
    {
        QCOMPARE(
            cli({QStringLiteral("note"), m_project, QStringLiteral("add"), QStringLiteral("--at"),
                 QStringLiteral("2ms"), QStringLiteral("--text"), QStringLiteral("look-here"),
                 QStringLiteral("--run"), QStringLiteral("demo")}),
            0);
        const auto svgText = [&](const QStringList &extra, QByteArray *err = nullptr) {
            const QString out = m_dir.filePath(QStringLiteral("defaults.svg"));
            QFile::remove(out);
            if (cli(QStringList{QStringLiteral("export"), m_project, QStringLiteral("--run"),
                                QStringLiteral("demo"), QStringLiteral("--out"), out} +
                        extra,
                    err) != 0)
                return QString();
            QFile f(out);
            return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
        };
        const QString plain = svgText({});
        QVERIFY(!plain.isEmpty());
        QVERIFY(!plain.contains(QStringLiteral("Overview")));
        QVERIFY(!plain.contains(QStringLiteral("window ")));
        QVERIFY2(plain.contains(QStringLiteral("main thread")), "short row labels");
        const QChar flag(0x2022); // the note's flag on the ruler
        QVERIFY2(plain.contains(flag), "the note is drawn");
        const QString chrome = svgText({QStringLiteral("--chrome")});
        QVERIFY(chrome.contains(QStringLiteral("window ")));
        QVERIFY(!svgText({QStringLiteral("--no-notes")}).contains(flag));
        QVERIFY(!svgText({QStringLiteral("--no-chrome"), QStringLiteral("--notes")}).isEmpty());
        QByteArray err;
        QVERIFY(
            svgText({QStringLiteral("--chrome"), QStringLiteral("--no-chrome")}, &err).isEmpty());
        QVERIFY2(err.contains("exclude each other"), err.constData());

        // --range 1ms:3ms after the run's start draws what @START+1ms:@START+3ms does.
        const auto rulerOf = [&](const QString &range) {
            const QString state = m_dir.filePath(QStringLiteral("range.json"));
            QFile::remove(state);
            if (cli({QStringLiteral("export"), m_project, QStringLiteral("--run"),
                     QStringLiteral("demo"), QStringLiteral("--range"), range,
                     QStringLiteral("--out"), m_dir.filePath(QStringLiteral("range.png")),
                     QStringLiteral("--state"), state}) != 0)
                return QJsonArray();
            QFile f(state);
            return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll())
                                                     .object()
                                                     .value(QStringLiteral("ruler"))
                                                     .toArray()
                                               : QJsonArray();
        };
        const QJsonArray relative = rulerOf(QStringLiteral("1ms:3ms"));
        QVERIFY(relative.size() >= 3);
        const auto info =
            gmltest::runCli({QStringLiteral("info"), m_project, QStringLiteral("--json")});
        qint64 start = -1;
        for (const auto &run :
             QJsonDocument::fromJson(info.out).object().value(QStringLiteral("runs")).toArray())
            if (run.toObject().value(QStringLiteral("name")).toString() == QLatin1String("demo"))
                start = run.toObject().value(QStringLiteral("start_ns")).toInteger(-1);
        QVERIFY(start >= 0);
        QCOMPARE(rulerOf(QStringLiteral("@%1:@%2").arg(start + 1'000'000).arg(start + 3'000'000)),
                 relative);
        QVERIFY(rulerOf(QStringLiteral("1ms:@5")).isEmpty()); // one clock for both ends
        QCOMPARE(cli({QStringLiteral("export"), m_project, QStringLiteral("--range"),
                      QStringLiteral("1ms:@5"), QStringLiteral("--out"),
                      m_dir.filePath(QStringLiteral("range.png"))},
                     &err),
                 2);
        QVERIFY2(err.contains("@NS:@NS on the project clock"), err.constData());
    }

    // --theme dark: the figure in the studio's dark theme.
    void darkFigure()
    {
        const QString out = m_dir.filePath(QStringLiteral("dark.png"));
        QCOMPARE(cli({QStringLiteral("export"), m_project, QStringLiteral("--out"), out,
                      QStringLiteral("--theme"), QStringLiteral("dark"), QStringLiteral("--size"),
                      QStringLiteral("800x300")}),
                 0);
        const QImage img(out);
        QVERIFY(img.pixelColor(img.width() - 5, img.height() - 5).lightness() < 60);
        QCOMPARE(cli({QStringLiteral("export"), m_project, QStringLiteral("--out"), out,
                      QStringLiteral("--theme"), QStringLiteral("purple")}),
                 2);
    }

    void pdfKeepsText()
    {
        const QString out = m_dir.filePath(QStringLiteral("t.pdf"));
        QCOMPARE(cli({QStringLiteral("export"), m_project, QStringLiteral("--range"),
                      QStringLiteral("0:5000000000000000000"), QStringLiteral("--out"), out}),
                 0);
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        QVERIFY(bytes.startsWith("%PDF"));
        QVERIFY(bytes.contains("/Font"));
        QVERIFY(bytes.contains("/FontFile2") ||
                bytes.contains("/FontFile")); // embedded, text as glyphs of a font
    }

    // An empty run says so, not "--range 0:1 holds no data" when no --range was given (issue 33).
    void emptyRunSaysSo()
    {
        gmltest::writeFile(m_dir, QStringLiteral("empty/trace.json"), R"({"traceEvents":[]})");
        const QString project = m_dir.filePath(QStringLiteral("empty.grademl"));
        QCOMPARE(cli({QStringLiteral("import"), m_dir.filePath(QStringLiteral("empty")),
                      QStringLiteral("--project"), project, QStringLiteral("--run"),
                      QStringLiteral("nothing")}),
                 0);
        QByteArray err;
        QCOMPARE(
            cli({QStringLiteral("export"), project, QStringLiteral("--view"),
                 QStringLiteral("timeline"), QStringLiteral("--run"), QStringLiteral("nothing"),
                 QStringLiteral("--out"), m_dir.filePath(QStringLiteral("e.png"))},
                &err),
            0);
        QVERIFY2(err.contains("run 'nothing' holds no data to draw") && !err.contains("--range"),
                 err.constData());
        QCOMPARE(cli({QStringLiteral("export"), project, QStringLiteral("--view"),
                      QStringLiteral("timeline"), QStringLiteral("--range"), QStringLiteral("5:10"),
                      QStringLiteral("--out"), m_dir.filePath(QStringLiteral("f.png"))},
                     &err),
                 0);
        QVERIFY2(err.contains("--range 5:10 holds no data"), err.constData());
    }

    void badArguments()
    {
        QByteArray err;
        QCOMPARE(cli({QStringLiteral("export"), m_project, QStringLiteral("--out"),
                      m_dir.filePath(QStringLiteral("x.bmp"))},
                     &err),
                 2);
        QVERIFY(err.contains("png, .svg or .pdf"));
        QCOMPARE(cli({QStringLiteral("export"), m_project, QStringLiteral("--out"),
                      m_dir.filePath(QStringLiteral("x.png")), QStringLiteral("--range"),
                      QStringLiteral("9:3")},
                     &err),
                 2);
        QCOMPARE(cli({QStringLiteral("export"), m_project, QStringLiteral("--view"),
                      QStringLiteral("flame"), QStringLiteral("--out"),
                      m_dir.filePath(QStringLiteral("x.png"))},
                     &err),
                 2);
        QVERIFY(err.contains("timeline, graph"));
        QCOMPARE(cli({QStringLiteral("export"), m_project, QStringLiteral("--view"),
                      QStringLiteral("graph"), QStringLiteral("--range"), QStringLiteral("1:3"),
                      QStringLiteral("--out"), m_dir.filePath(QStringLiteral("x.png"))},
                     &err),
                 2);
        QCOMPARE(cli({QStringLiteral("export"), m_project, QStringLiteral("--view"),
                      QStringLiteral("graph"), QStringLiteral("--level"), QStringLiteral("kernel"),
                      QStringLiteral("--out"), m_dir.filePath(QStringLiteral("x.png"))},
                     &err),
                 2);
        QCOMPARE(cli({QStringLiteral("export"), m_project, QStringLiteral("--run"),
                      QStringLiteral("nope"), QStringLiteral("--out"),
                      m_dir.filePath(QStringLiteral("x.png"))},
                     &err),
                 1);
        QVERIFY(err.contains("no run named 'nope'"));
        QVERIFY(!QFileInfo::exists(m_dir.filePath(QStringLiteral("x.png"))));
        QCOMPARE(cli({QStringLiteral("export"), m_dir.filePath(QStringLiteral("missing.grademl")),
                      QStringLiteral("--out"), m_dir.filePath(QStringLiteral("x.png"))},
                     &err),
                 1);
    }
};

QTEST_GUILESS_MAIN(TestExport)
#include "tst_export.moc"
