// SPDX-License-Identifier: GPL-3.0-or-later
// grademl report (issue 59): one self-contained HTML file, the Analysis page in a browser.
// Checked as a reader meets it: rendered by Debian's headless Chromium (skipped with a message
// when it is not installed: `bash packaging/install-deps.sh test` installs it) at 1366×768 and
// 1920×1080 with no console message, not blank, the findings table in the page; loading
// nothing (no http(s) reference, a CSP that forbids scripts and fetches); and a trace whose
// names hold markup gives a report in which that markup is text.
#include "testutil.h"

#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using gmltest::runCli;

namespace {

QString chromium()
{
    for (const char *name : {"chromium", "chromium-browser"})
        if (const QString path = QStandardPaths::findExecutable(QLatin1String(name));
            !path.isEmpty())
            return path;
    return {};
}

// Chromium's verdict on a page: its screenshot, its DOM after load, and what its console said.
struct Render
{
    QImage screenshot;
    QString dom;
    QStringList console; // console messages and CSP refusals
};

Render render(const QString &browser, const QString &html, QSize size, const QTemporaryDir &tmp)
{
    Render r;
    const QString png =
        tmp.filePath(QStringLiteral("shot-%1x%2.png").arg(size.width()).arg(size.height()));
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOME"), tmp.path()); // its profile, not the user's
    const QStringList common{
        QStringLiteral("--headless"),
        QStringLiteral("--no-sandbox"),
        QStringLiteral("--disable-gpu"),
        QStringLiteral("--hide-scrollbars"),
        QStringLiteral("--no-first-run"),
        QStringLiteral("--user-data-dir=") + tmp.filePath(QStringLiteral("profile")),
        QStringLiteral("--enable-logging=stderr"),
        QStringLiteral("--v=0"),
        QStringLiteral("--window-size=%1,%2").arg(size.width()).arg(size.height())};
    const auto shot =
        gmltest::runProgram(browser,
                            common + QStringList{QStringLiteral("--screenshot=") + png,
                                                 QStringLiteral("file://") + html},
                            120, env);
    const auto dom = gmltest::runProgram(
        browser,
        common + QStringList{QStringLiteral("--dump-dom"), QStringLiteral("file://") + html}, 120,
        env);
    r.screenshot.load(png);
    r.dom = dom.outText();
    const QByteArray log = shot.err + "\n" + dom.err;
    for (const QByteArray &line : log.split('\n'))
        if (line.contains("CONSOLE") || line.contains("Refused to") ||
            line.contains("Content Security Policy") || line.contains("Uncaught"))
            r.console << QString::fromUtf8(line);
    return r;
}

// Distinct colours in a grid of samples: a blank page has one.
int colours(const QImage &image)
{
    QSet<QRgb> seen;
    for (int y = 0; y < image.height(); y += 7)
        for (int x = 0; x < image.width(); x += 7)
            seen.insert(image.pixel(x, y));
    return int(seen.size());
}

} // namespace

class TestReport : public QObject
{
    Q_OBJECT
    QTemporaryDir m_tmp;

    QString report(const QString &input, const QString &tag)
    {
        const QString project = m_tmp.filePath(tag + QStringLiteral(".grademl"));
        auto r = runCli({QStringLiteral("import"), input, QStringLiteral("--project"), project});
        if (r.code != 0)
            qFatal("import %s: %s", qPrintable(input), r.err.constData());
        const QString html = m_tmp.filePath(tag + QStringLiteral(".html"));
        r = runCli({QStringLiteral("report"), project, QStringLiteral("--out"), html});
        if (r.code != 0)
            qFatal("report %s: %s", qPrintable(project), qPrintable(r.all()));
        return html;
    }

    static QString text(const QString &path)
    {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            qFatal("cannot read %s", qPrintable(path));
        return QString::fromUtf8(f.readAll());
    }

    // What any report must hold and must not.
    static void checkSelfContained(const QString &html)
    {
        QVERIFY(html.contains(QLatin1String(
            "Content-Security-Policy\" content=\"default-src 'none'; img-src data:;")));
        QVERIFY(!html.contains(QLatin1String("<script"), Qt::CaseInsensitive));
        QVERIFY(!QRegularExpression(QStringLiteral("(src|href|srcset)=\"(https?:)?//"))
                     .match(html)
                     .hasMatch());
    }

private Q_SLOTS:
    // The 8-rank DLRM job: headline, findings with prices, breakdown, families, the rank table
    // and heat map, the figures in both themes; rendered by Chromium at two sizes.
    void dlrmInABrowser()
    {
        const QString trace = QStringLiteral("pytorch_kineto/param_dlrm_8rank_v100");
        GML_REQUIRE_SHARED(trace);
        const QString path =
            report(gmltest::sharedTraces() + QLatin1Char('/') + trace, QStringLiteral("dlrm"));
        const QString html = text(path);
        checkSelfContained(html);
        QVERIFY(html.contains(QLatin1String("<table class=\"findings\">")));
        QVERIFY(html.contains(QLatin1String("up to -"))); // a priced finding
        QVERIFY(html.contains(QLatin1String("Kernel families")));
        QVERIFY(html.contains(QLatin1String("<td>rank 7</td>"))); // the rank table
        QVERIFY(html.contains(QLatin1String("<th>rank 7</th>"))); // the heat map
        // The collectives by kind: DLRM's all-to-all as 5 SendRecv, 3 all-reduces (issue 72).
        QVERIFY(html.contains(QLatin1String("<h2>Collectives</h2>")));
        QVERIFY(html.contains(QLatin1String("<tr><td>SendRecv</td><td class=\"num\">8</td><td "
                                            "class=\"num\">?</td><td class=\"num\">5</td>")));
        QCOMPARE(html.count(QLatin1String("<source media=\"(prefers-color-scheme: dark)\"")), 2);
        QCOMPARE(html.count(QLatin1String("data:image/svg+xml;base64,")), 4);

        const QString browser = chromium();
        if (browser.isEmpty())
            QSKIP("chromium is not installed (bash packaging/install-deps.sh test installs it): "
                  "the report was not rendered");
        for (const QSize size : {QSize(1366, 768), QSize(1920, 1080)}) {
            const Render r = render(browser, path, size, m_tmp);
            QVERIFY2(!r.screenshot.isNull(), "no screenshot");
            QCOMPARE(r.screenshot.size(), size);
            QVERIFY2(colours(r.screenshot) > 8, "the page rendered blank");
            QVERIFY2(r.console.isEmpty(), qPrintable(r.console.join(QLatin1Char('\n'))));
            QVERIFY(r.dom.contains(QLatin1String("<table class=\"findings\">")));
            QVERIFY(r.dom.contains(QLatin1String("Small kernels")) ||
                    r.dom.contains(QLatin1String("Launch-bound")));
            QDir().mkpath(QStringLiteral("screenshots"));
            r.screenshot.save(QStringLiteral("screenshots/report-dlrm-%1x%2.png")
                                  .arg(size.width())
                                  .arg(size.height()));
        }
    }

    // A trace someone sent you whose names hold markup: the report shows them as text, and a
    // browser runs nothing and says nothing.
    void hostileNamesAreText()
    {
        QJsonArray events;
        const auto ev = [](const QString &ph, int pid, int tid, int ts, int dur,
                           const QString &name, const QString &cat, const QJsonObject &args = {}) {
            QJsonObject o{{QStringLiteral("ph"), ph},   {QStringLiteral("pid"), pid},
                          {QStringLiteral("tid"), tid}, {QStringLiteral("ts"), ts},
                          {QStringLiteral("dur"), dur}, {QStringLiteral("name"), name},
                          {QStringLiteral("cat"), cat}};
            if (!args.isEmpty())
                o.insert(QStringLiteral("args"), args);
            return o;
        };
        const QString script = QStringLiteral("<script>alert(1)</script>");
        const QString img = QStringLiteral("\"><img src=x onerror=alert(1)>");
        for (int step = 0; step < 3; ++step) {
            const int t0 = step * 1000;
            events.append(ev(QStringLiteral("X"), 1, 1, t0, 900,
                             QStringLiteral("ProfilerStep#%1").arg(step),
                             QStringLiteral("user_annotation")));
            events.append(
                ev(QStringLiteral("X"), 1, 1, t0 + 10, 300, script, QStringLiteral("cpu_op")));
            events.append(ev(QStringLiteral("X"), 1, 1, t0 + 20, 20,
                             QStringLiteral("cudaLaunchKernel"), QStringLiteral("cuda_runtime"),
                             {{QStringLiteral("correlation"), step + 1}}));
            events.append(ev(QStringLiteral("X"), 0, 7, t0 + 50, 600, img, QStringLiteral("kernel"),
                             {{QStringLiteral("correlation"), step + 1},
                              {QStringLiteral("device"), 0},
                              {QStringLiteral("stream"), 7}}));
        }
        events.append(
            QJsonObject{{QStringLiteral("ph"), QStringLiteral("M")},
                        {QStringLiteral("pid"), 1},
                        {QStringLiteral("tid"), 1},
                        {QStringLiteral("name"), QStringLiteral("thread_name")},
                        {QStringLiteral("args"), QJsonObject{{QStringLiteral("name"), script}}}});
        const QString input = gmltest::writeFile(
            m_tmp, QStringLiteral("hostile/trace.json"),
            QJsonDocument(QJsonObject{{QStringLiteral("traceEvents"), events}}).toJson());
        const QString path = report(input, QStringLiteral("hostile"));
        const QString html = text(path);
        checkSelfContained(html);
        QVERIFY(!html.contains(QLatin1String("<img src=x")));
        QVERIFY(!html.contains(QLatin1String("<script>alert")));
        // The kernel's name in the table of GPU work, as text.
        QVERIFY2(html.contains(QLatin1String(
                     "<td class=\"kname\" title=\"&quot;&gt;&lt;img src=x onerror=alert(1)&gt;\">"
                     "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;</td>")),
                 "the hostile kernel name does not appear as text");
        // And the figures (SVG, drawn by the painters) hold them as text too.
        static const QRegularExpression svg(
            QStringLiteral("data:image/svg\\+xml;base64,([A-Za-z0-9+/=]+)"));
        int figures = 0;
        for (auto it = svg.globalMatch(html); it.hasNext(); ++figures) {
            const QByteArray bytes = QByteArray::fromBase64(it.next().captured(1).toLatin1());
            QVERIFY(!bytes.contains("<script"));
            QVERIFY(!bytes.contains("<img"));
        }
        QVERIFY(figures >= 2);
        const QString browser = chromium();
        if (browser.isEmpty())
            QSKIP("chromium is not installed (bash packaging/install-deps.sh test installs it)");
        const Render r = render(browser, path, QSize(1366, 768), m_tmp);
        QVERIFY2(r.console.isEmpty(), qPrintable(r.console.join(QLatin1Char('\n'))));
        QVERIFY(colours(r.screenshot) > 8);
        // The DOM holds no element the names would have made.
        QVERIFY(!r.dom.contains(QLatin1String("<img src=\"x\"")));
        QVERIFY(!r.dom.contains(QLatin1String("<script>alert")));
    }

    // What the project keeps about the run: its saved what-if scenarios with their prediction,
    // and its notes, as text.
    void scenariosAndNotes()
    {
        const QString project = m_tmp.filePath(QStringLiteral("demo.grademl"));
        QCOMPARE(runCli({QStringLiteral("import"), QStringLiteral(GRADEML_DEMO),
                         QStringLiteral("--project"), project})
                     .code,
                 0);
        auto r = runCli({QStringLiteral("whatif"), project, QStringLiteral("--scale"),
                         QStringLiteral(".=0.8"), QStringLiteral("--save-scenario"),
                         QStringLiteral("faster <b>ops</b>")});
        QVERIFY2(r.code == 0, r.err.constData());
        r = runCli({QStringLiteral("note"), project, QStringLiteral("add"), QStringLiteral("--at"),
                    QStringLiteral("@1700000000020000000"), QStringLiteral("--text"),
                    QStringLiteral("slow step <i>here</i>")});
        QVERIFY2(r.code == 0, r.err.constData());
        const QString path = m_tmp.filePath(QStringLiteral("demo.html"));
        r = runCli({QStringLiteral("report"), project, QStringLiteral("--out"), path});
        QVERIFY2(r.code == 0, qPrintable(r.all()));
        const QString html = text(path);
        checkSelfContained(html);
        QVERIFY(html.contains(
            QLatin1String("<td>faster &lt;b&gt;ops&lt;/b&gt;</td><td>scale /./ x0.8</td>")));
        QVERIFY(
            QRegularExpression(QStringLiteral("<td class=\"num\">[0-9.]+ ms \\(-[0-9.]+%\\)</td>"))
                .match(html)
                .hasMatch());
        QVERIFY(html.contains(QLatin1String("<td>slow step &lt;i&gt;here&lt;/i&gt;</td>")));
    }

    void usageErrors()
    {
        QCOMPARE(runCli({QStringLiteral("report"), QStringLiteral("x.grademl"),
                         QStringLiteral("--out"), QStringLiteral("r.pdf")})
                     .code,
                 2);
        const auto r =
            runCli({QStringLiteral("report"), m_tmp.filePath(QStringLiteral("none.grademl")),
                    QStringLiteral("--out"), m_tmp.filePath(QStringLiteral("r.html"))});
        QCOMPARE(r.code, 1);
        QVERIFY(!QFile::exists(m_tmp.filePath(QStringLiteral("r.html"))));
    }
};

QTEST_GUILESS_MAIN(TestReport)
#include "tst_report.moc"
