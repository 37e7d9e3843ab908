// SPDX-License-Identifier: GPL-3.0-or-later
#include "project.h"

#include "schema.h"
#include "slicestore.h"

#include <QFileInfo>

namespace gml {

std::unique_ptr<Project> Project::open(const QString &path, Mode mode, QString *error)
{
    std::unique_ptr<Project> p(new Project);
    p->m_path = path;
    p->m_mode = mode;
    if (mode == Mode::ReadOnly && !QFileInfo::exists(path)) {
        if (error)
            *error = QStringLiteral("%1: no such project file").arg(path);
        return nullptr;
    }
    QString why;
    if (!p->m_db.open(path, mode == Mode::ReadOnly, &why) ||
        !slicestore::registerModule(p->m_db.handle(), &why)) {
        if (error)
            *error = QStringLiteral("%1: cannot open project: %2").arg(path, why);
        return nullptr;
    }
    if (mode == Mode::ReadOnly) {
        // query_only makes any writing statement fail even if it slipped past the read-only open.
        (void)p->m_db.exec("PRAGMA query_only=ON;");
        const qint64 version = p->m_db.scalar("PRAGMA user_version;", -1);
        if (version < 0 || p->m_db.scalar("SELECT count(*) FROM sqlite_master WHERE name='run'") == 0) {
            if (error)
                *error = QStringLiteral("%1: not a GradeML project file").arg(path);
            return nullptr;
        }
        if (version > schema::currentVersion()) {
            if (error)
                *error = QStringLiteral("%1: project schema %2 is newer than this program's %3")
                             .arg(path).arg(version).arg(schema::currentVersion());
            return nullptr;
        }
        return p;
    }
    // WAL keeps readers (GUI) going while a worker imports; NORMAL sync is durable at commit
    // boundaries in WAL mode, which is the unit we care about (one source). A new project gets
    // 64 KiB pages (it must be set before WAL mode): nearly all of its bytes are chunk blobs of
    // up to a few MB, and with 4 KiB pages each was a chain of hundreds of overflow pages, one
    // WAL frame and one write each. Importing 200 MB of trace committed in half the time.
    // Existing projects keep their page size (changing it needs a VACUUM outside WAL mode).
    if (!p->m_db.exec("PRAGMA page_size=65536; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                      "PRAGMA foreign_keys=ON; PRAGMA temp_store=MEMORY; PRAGMA cache_size=-65536;",
                      &why)) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(path, why);
        return nullptr;
    }
    if (!p->migrate(&why)) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(path, why);
        return nullptr;
    }
    return p;
}

Project::~Project() = default;

int Project::schemaVersion() const
{
    return int(m_db.scalar("PRAGMA user_version;", 0));
}

bool Project::migrate(QString *error)
{
    const int have = schemaVersion();
    const auto &steps = schema::migrations();
    if (have > int(steps.size())) {
        if (error)
            *error = QStringLiteral("project schema %1 is newer than this program's %2")
                         .arg(have).arg(steps.size());
        return false;
    }
    if (have == 0 && m_db.scalar("SELECT count(*) FROM sqlite_master") != 0) {
        if (error)
            *error = QStringLiteral("not a GradeML project file (it holds other tables)");
        return false;
    }
    for (int v = have; v < int(steps.size()); ++v) {
        if (!m_db.exec("BEGIN IMMEDIATE;", error))
            return false;
        const std::string sql = std::string(steps[size_t(v)]) + "\nPRAGMA user_version=" +
                                std::to_string(v + 1) + ";";
        if (!m_db.exec(sql, error) || !schema::migrateData(v + 1, m_db, error)) {
            (void)m_db.exec("ROLLBACK;");
            return false;
        }
        if (!m_db.exec("COMMIT;", error))
            return false;
    }
    return true;
}

bool Project::begin(QString *error)
{
    loadStrings();
    m_stringIdAtBegin = m_maxStringId;
    return m_db.exec("BEGIN IMMEDIATE;", error);
}

bool Project::commit(QString *error)
{
    return m_db.exec("COMMIT;", error);
}

void Project::rollback()
{
    (void)m_db.exec("ROLLBACK;");
    // Strings inserted inside the rolled-back transaction are gone from the file.
    for (auto it = m_strings.begin(); it != m_strings.end();) {
        if (it->second > m_stringIdAtBegin)
            it = m_strings.erase(it);
        else
            ++it;
    }
    m_maxStringId = m_stringIdAtBegin;
}

RunId Project::ensureRun(const QString &name, QString *error)
{
    if (auto id = findRun(name))
        return *id;
    auto st = m_db.prepare("INSERT INTO run(name) VALUES(?)");
    st.bind(1, name);
    if (!st.exec()) {
        if (error)
            *error = st.errorString();
        return 0;
    }
    return m_db.lastInsertRowId();
}

std::optional<RunId> Project::findRun(const QString &name)
{
    auto st = m_db.prepare("SELECT id FROM run WHERE name=?");
    st.bind(1, name);
    if (st.step())
        return st.int64(0);
    return std::nullopt;
}

std::optional<SourceRecord> Project::sourceByPath(const QString &path)
{
    auto st = m_db.prepare("SELECT id, run_id, path, format, size, mtime_ns, hash, status, error, "
                           "align_user_ns FROM source WHERE path=?");
    st.bind(1, path);
    if (!st.step())
        return std::nullopt;
    SourceRecord r;
    r.id = st.int64(0);
    r.runId = st.int64(1);
    r.path = st.text(2);
    r.format = st.text(3);
    r.size = st.int64(4);
    r.mtimeNs = st.int64(5);
    r.hash = st.text(6);
    r.status = st.text(7);
    r.error = st.text(8);
    if (!st.isNull(9))
        r.alignUserNs = st.int64(9);
    return r;
}

bool Project::deleteSource(SourceId id, QString *error)
{
    static constexpr std::string_view steps[] = {
        "DELETE FROM slice_chunk WHERE track_id IN (SELECT id FROM track WHERE source_id=?1)",
        "DELETE FROM counter WHERE track_id IN (SELECT id FROM track WHERE source_id=?1)",
        "DELETE FROM flow_chunk WHERE source_id=?1",
        "DELETE FROM track WHERE source_id=?1",
        "DELETE FROM source WHERE id=?1",
    };
    for (auto sql : steps) {
        auto st = m_db.prepare(sql);
        st.bind(1, id);
        if (!st.exec()) {
            if (error)
                *error = st.errorString();
            return false;
        }
    }
    return true;
}

void Project::loadStrings()
{
    if (m_stringsLoaded)
        return;
    m_stringsLoaded = true;
    auto st = m_db.prepare("SELECT id, value FROM string");
    while (st.step()) {
        const auto v = st.textView(1);
        m_strings.emplace(std::string(v), st.int64(0));
        m_maxStringId = std::max(m_maxStringId, st.int64(0));
    }
}

StringId Project::intern(std::string_view text)
{
    loadStrings();
    auto it = m_strings.find(text); // transparent lookup: no temporary string

    if (it != m_strings.end())
        return it->second;
    if (!m_insertString.isValid())
        m_insertString = m_db.prepare("INSERT INTO string(id, value) VALUES(?, ?)");
    const StringId id = ++m_maxStringId;
    m_insertString.bind(1, id);
    m_insertString.bind(2, text);
    if (!m_insertString.exec()) {
        --m_maxStringId;
        return 0;
    }
    m_strings.emplace(std::string(text), id);
    return id;
}

QString Project::string(StringId id)
{
    auto st = m_db.prepare("SELECT value FROM string WHERE id=?");
    st.bind(1, id);
    return st.step() ? st.text(0) : QString();
}

} // namespace gml
