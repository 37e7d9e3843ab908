// SPDX-License-Identifier: GPL-3.0-or-later
#include "sqlitedb.h"

#include "compactjson.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gml {

// A connection's idle statements by their SQL text (SqliteDb::prepare). Used by the
// connection's thread only; emptied when the schema changes and when the connection closes
// (the generation then moves on, so a statement handed out before is finalised, not kept).
struct SqliteStatementCache
{
    struct TextHash
    {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
    };
    using Idle = std::vector<sqlite3_stmt *>;
    static constexpr size_t kMaxIdle = 256; // statements kept, all texts together

    sqlite3 *db = nullptr;
    quint64 generation = 0;
    size_t idleCount = 0;
    std::unordered_map<std::string, Idle, TextHash, std::equal_to<>> idle;

    void clear()
    {
        for (auto &[text, list] : idle)
            for (sqlite3_stmt *st : list)
                sqlite3_finalize(st);
        idle.clear();
        idleCount = 0;
        ++generation;
    }
};

namespace {

// The statement's first keyword, upper case (at most 8 letters; leading blanks skipped).
std::string firstKeyword(std::string_view sql)
{
    size_t i = 0;
    while (i < sql.size() && std::isspace(static_cast<unsigned char>(sql[i])))
        ++i;
    std::string word;
    for (; i < sql.size() && word.size() < 8 && std::isalpha(static_cast<unsigned char>(sql[i]));
         ++i)
        word.push_back(char(std::toupper(static_cast<unsigned char>(sql[i]))));
    return word;
}

bool keptWhenDone(std::string_view sql)
{
    const std::string w = firstKeyword(sql);
    return w == "SELECT" || w == "INSERT" || w == "UPDATE" || w == "DELETE" || w == "REPLACE" ||
           w == "WITH";
}

// Whether `sql` (one or more statements) may change the schema: kept statements are then let go.
bool changesSchema(std::string_view sql)
{
    std::string upper(sql.size(), ' ');
    for (size_t i = 0; i < sql.size(); ++i)
        upper[i] = char(std::toupper(static_cast<unsigned char>(sql[i])));
    for (std::string_view w : {"CREATE", "DROP", "ALTER"}) {
        for (size_t at = upper.find(w); at != std::string::npos; at = upper.find(w, at + 1)) {
            const bool startsWord =
                at == 0 || !std::isalnum(static_cast<unsigned char>(upper[at - 1]));
            const size_t end = at + w.size();
            const bool endsWord =
                end == upper.size() || !std::isalnum(static_cast<unsigned char>(upper[end]));
            if (startsWord && endsWord)
                return true;
        }
    }
    return false;
}

} // namespace

SqliteStatement::SqliteStatement(const std::shared_ptr<SqliteStatementCache> &cache,
                                 std::string_view sql)
    : m_db(cache->db)
{
    if (!keptWhenDone(sql)) {
        if (changesSchema(sql))
            cache->clear();
        *this = SqliteStatement(cache->db, sql);
        return;
    }
    auto it = cache->idle.find(sql);
    if (it == cache->idle.end())
        it = cache->idle.emplace(std::string(sql), SqliteStatementCache::Idle()).first;
    if (!it->second.empty()) {
        m_stmt = it->second.back();
        it->second.pop_back();
        --cache->idleCount;
    } else {
        *this = SqliteStatement(cache->db, sql);
        if (!m_stmt)
            return;
    }
    m_cache = cache;
    m_slot = &it->second;
    m_generation = cache->generation;
}

void SqliteStatement::release()
{
    if (!m_stmt)
        return;
    SqliteStatementCache *cache = m_cache.get();
    const bool keep = cache && cache->db == m_db && cache->generation == m_generation &&
                      cache->idleCount < SqliteStatementCache::kMaxIdle &&
                      m_lastResult != SQLITE_MISUSE;
    if (keep) {
        sqlite3_reset(m_stmt);
        sqlite3_clear_bindings(m_stmt);
        static_cast<SqliteStatementCache::Idle *>(m_slot)->push_back(m_stmt);
        ++cache->idleCount;
    } else {
        sqlite3_finalize(m_stmt);
    }
    m_stmt = nullptr;
    m_cache.reset();
    m_slot = nullptr;
}

SqliteStatement::SqliteStatement(sqlite3 *db, std::string_view sql) : m_db(db)
{
    const int rc = sqlite3_prepare_v3(db, sql.data(), int(sql.size()), SQLITE_PREPARE_PERSISTENT,
                                      &m_stmt, nullptr);
    if (rc != SQLITE_OK) {
        m_error = QString::fromUtf8(sqlite3_errmsg(db));
        m_stmt = nullptr;
    }
}

SqliteStatement::~SqliteStatement()
{
    release();
}

SqliteStatement::SqliteStatement(SqliteStatement &&other) noexcept
    : m_db(std::exchange(other.m_db, nullptr)), m_stmt(std::exchange(other.m_stmt, nullptr)),
      m_lastResult(other.m_lastResult), m_error(std::move(other.m_error)),
      m_cache(std::move(other.m_cache)), m_slot(std::exchange(other.m_slot, nullptr)),
      m_generation(other.m_generation)
{
}

SqliteStatement &SqliteStatement::operator=(SqliteStatement &&other) noexcept
{
    if (this != &other) {
        release();
        m_db = std::exchange(other.m_db, nullptr);
        m_stmt = std::exchange(other.m_stmt, nullptr);
        m_lastResult = other.m_lastResult;
        m_error = std::move(other.m_error);
        m_cache = std::move(other.m_cache);
        m_slot = std::exchange(other.m_slot, nullptr);
        m_generation = other.m_generation;
    }
    return *this;
}

void SqliteStatement::bind(int index, qint64 value)
{
    sqlite3_bind_int64(m_stmt, index, value);
}

void SqliteStatement::bind(int index, double value)
{
    sqlite3_bind_double(m_stmt, index, value);
}

void SqliteStatement::bind(int index, std::string_view text)
{
    sqlite3_bind_text(m_stmt, index, text.data(), int(text.size()), SQLITE_TRANSIENT);
}

void SqliteStatement::bindStatic(int index, std::string_view text)
{
    sqlite3_bind_text(m_stmt, index, text.data(), int(text.size()), SQLITE_STATIC);
}

void SqliteStatement::bindBlob(int index, std::string_view bytes)
{
    sqlite3_bind_blob64(m_stmt, index, bytes.data(), bytes.size(), SQLITE_TRANSIENT);
}

void SqliteStatement::bind(int index, const QString &text)
{
    const QByteArray utf8 = text.toUtf8();
    sqlite3_bind_text(m_stmt, index, utf8.constData(), int(utf8.size()), SQLITE_TRANSIENT);
}

void SqliteStatement::bindJson(int index, const QJsonObject &value)
{
    bind(index, std::string_view(compactJson(value)));
}

void SqliteStatement::bindJson(int index, const QJsonArray &value)
{
    bind(index, std::string_view(compactJson(value)));
}

void SqliteStatement::bindNull(int index)
{
    sqlite3_bind_null(m_stmt, index);
}

bool SqliteStatement::step()
{
    if (!m_stmt)
        return false;
    m_lastResult = sqlite3_step(m_stmt);
    if (m_lastResult == SQLITE_ROW)
        return true;
    if (m_lastResult != SQLITE_DONE)
        m_error = QString::fromUtf8(sqlite3_errmsg(m_db));
    return false;
}

bool SqliteStatement::exec()
{
    if (!m_stmt)
        return false;
    step();
    const bool ok = m_lastResult == SQLITE_DONE;
    sqlite3_reset(m_stmt);
    return ok;
}

bool SqliteStatement::exec(QString *error)
{
    if (exec())
        return true;
    if (error)
        *error = errorString();
    return false;
}

void SqliteStatement::reset()
{
    sqlite3_reset(m_stmt);
}

int SqliteStatement::columnCount() const
{
    return sqlite3_column_count(m_stmt);
}

bool SqliteStatement::isNull(int column) const
{
    return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

qint64 SqliteStatement::int64(int column) const
{
    return sqlite3_column_int64(m_stmt, column);
}

double SqliteStatement::real(int column) const
{
    return sqlite3_column_double(m_stmt, column);
}

QString SqliteStatement::text(int column) const
{
    const auto view = textView(column);
    return QString::fromUtf8(view.data(), qsizetype(view.size()));
}

std::string_view SqliteStatement::textView(int column) const
{
    const auto *p = reinterpret_cast<const char *>(sqlite3_column_text(m_stmt, column));
    if (!p)
        return {};
    return std::string_view(p, size_t(sqlite3_column_bytes(m_stmt, column)));
}

std::string_view SqliteStatement::blobView(int column) const
{
    const auto *p = static_cast<const char *>(sqlite3_column_blob(m_stmt, column));
    if (!p)
        return {};
    return std::string_view(p, size_t(sqlite3_column_bytes(m_stmt, column)));
}

int SqliteStatement::columnType(int column) const
{
    return sqlite3_column_type(m_stmt, column);
}

QString SqliteStatement::columnName(int column) const
{
    return QString::fromUtf8(sqlite3_column_name(m_stmt, column));
}

SqliteDb::~SqliteDb()
{
    close();
}

bool SqliteDb::openWith(const QByteArray &name, int flags, QString *error)
{
    close();
    const int rc = sqlite3_open_v2(name.constData(), &m_db, flags | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        if (error)
            *error = m_db ? QString::fromUtf8(sqlite3_errmsg(m_db))
                          : QString::fromUtf8(sqlite3_errstr(rc));
        close();
        return false;
    }
    sqlite3_extended_result_codes(m_db, 1);
    m_cache = std::make_shared<SqliteStatementCache>();
    m_cache->db = m_db;
    return true;
}

bool SqliteDb::open(const QString &path, bool readOnly, QString *error)
{
    const int flags =
        readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    if (!openWith(path.toUtf8(), flags, error))
        return false;
    sqlite3_busy_timeout(m_db, 5000);
    return true;
}

bool SqliteDb::openImmutable(const QString &path, QString *error)
{
    const QByteArray uri = QUrl::fromLocalFile(QFileInfo(path).absoluteFilePath()).toEncoded() +
                           "?mode=ro&immutable=1";
    return openWith(uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, error);
}

bool SqliteDb::hasTable(std::string_view name) const
{
    auto st = prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?");
    st.bind(1, name);
    return st.step();
}

QStringList SqliteDb::columns(std::string_view table) const
{
    QStringList out;
    auto st = prepare("SELECT name FROM pragma_table_info(?)");
    st.bind(1, table);
    while (st.step())
        out.append(st.text(0));
    return out;
}

SqliteStatement SqliteDb::prepare(std::string_view sql) const
{
    if (!m_cache)
        return SqliteStatement(m_db, sql);
    return SqliteStatement(m_cache, sql);
}

void SqliteDb::close()
{
    if (m_cache) { // statements handed out and still alive are finalised when destroyed
        m_cache->clear();
        m_cache->db = nullptr;
        m_cache.reset();
    }
    if (m_db) {
        sqlite3_close_v2(m_db);
        m_db = nullptr;
    }
}

bool SqliteDb::exec(std::string_view sql, QString *error)
{
    if (m_cache && changesSchema(sql))
        m_cache->clear();
    char *msg = nullptr;
    const std::string s(sql);
    const int rc = sqlite3_exec(m_db, s.c_str(), nullptr, nullptr, &msg);
    if (rc != SQLITE_OK) {
        if (error)
            *error = QString::fromUtf8(msg ? msg : sqlite3_errstr(rc));
        sqlite3_free(msg);
        return false;
    }
    return true;
}

qint64 SqliteDb::scalar(std::string_view sql, qint64 fallback) const
{
    SqliteStatement st = prepare(sql);
    if (st.step() && !st.isNull(0))
        return st.int64(0);
    return fallback;
}

void SqliteDb::foldLogEvery(qint64 bytes)
{
    const qint64 page = std::max<qint64>(512, scalar("PRAGMA page_size;", 4096));
    (void)exec("PRAGMA wal_autocheckpoint=" + std::to_string(std::max<qint64>(1, bytes / page)) +
               ";");
}

qint64 SqliteDb::lastInsertRowId() const
{
    return sqlite3_last_insert_rowid(m_db);
}

QString SqliteDb::lastError() const
{
    return m_db ? QString::fromUtf8(sqlite3_errmsg(m_db)) : QString();
}

bool SqliteDb::inTransaction() const
{
    return m_db && sqlite3_get_autocommit(m_db) == 0;
}

bool SqliteDb::lastErrorWasBusy() const
{
    return m_db && (sqlite3_extended_errcode(m_db) & 0xFF) == SQLITE_BUSY;
}

} // namespace gml
