// SPDX-License-Identifier: GPL-3.0-or-later
// What a cluster project reads of a shard (issue 56): its identity row and its rank facts,
// as another program or a damaged disk may have left them. The input fills a shard's
// shard_identity (job, index, count, stamp) and a rank_facts blob; the identity is compared
// with what a cluster merged, and the facts decoded. Nothing may crash, and a shard that is
// not the one merged must never read as it.
#include "fuzzimport.h"

#include "clusterproject.h"
#include "rankfacts.h"

#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gml::Project &project = gmlfuzz::project();
    if (size < 4)
        return 0;
    QString error;
    if (!project.begin(&error))
        abort();
    const int index = int(int8_t(data[0])), count = int(int8_t(data[1]));
    const size_t split = std::min<size_t>(size - 2, data[2]);
    const QByteArray text(reinterpret_cast<const char *>(data + 3),
                          qsizetype(std::min(split, size - 3)));
    const std::string_view blob(reinterpret_cast<const char *>(data + 3 + text.size()),
                                size - 3 - size_t(text.size()));
    (void)project.db().exec("PRAGMA ignore_check_constraints = 1;");
    auto id = project.db().prepare(
        "INSERT OR REPLACE INTO shard_identity(id, job, shard_index, shard_count, stamp) "
        "VALUES (1, ?, ?, ?, ?)");
    id.bind(1, std::string_view(text.constData(), size_t(std::min<qsizetype>(text.size(), 16))));
    id.bind(2, qint64(index));
    id.bind(3, qint64(count));
    id.bind(4, text.size() > 16 ? std::string_view(text.constData() + 16, size_t(text.size() - 16))
                                : std::string_view());
    (void)id.exec();
    (void)project.db().exec("PRAGMA ignore_check_constraints = 0;");
    gml::cluster::Shard merged;
    merged.job = QStringLiteral("0123456789abcdef");
    merged.index = 1;
    merged.count = 4;
    merged.stamp = QStringLiteral("stamp");
    const QString why = gml::cluster::shardMismatch(project, merged);
    const auto seen = gml::cluster::shardIdentity(project);
    const bool same = seen && seen->job == merged.job && seen->index == merged.index &&
                      seen->count == merged.count && seen->stamp == merged.stamp;
    if (why.isEmpty() != same)
        abort(); // a shard read as another, or the one merged refused
    // Rank facts as stored (compressed CBOR), whatever they hold.
    const QString run = QStringLiteral("fuzz");
    const gml::RunId runId = project.ensureRun(run, &error);
    auto src = project.db().prepare("INSERT INTO source(run_id, path, format, size, status) VALUES "
                                    "(?, '/fuzz', 'x', 0, 'imported')");
    src.bind(1, runId);
    (void)src.exec();
    const gml::SourceId source = project.db().lastInsertRowId();
    auto facts = project.db().prepare(
        "INSERT OR REPLACE INTO rank_facts(source_id, version, data) VALUES (?, ?, ?)");
    facts.bind(1, source);
    facts.bind(2, qint64(data[0]));
    facts.bindBlob(3, blob);
    (void)facts.exec();
    (void)gml::sim::loadRankFacts(project.db(), source);
    project.rollback();
    return 0;
}
