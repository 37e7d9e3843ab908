// SPDX-License-Identifier: GPL-3.0-or-later
// A small Nsight Systems export made at test time ('nsys export --type sqlite' tables, only
// the columns the importer reads): a process with one thread calling cudaLaunchKernel `rows`
// times, each launching a kernel on GPU 0 stream 7. Shared by the bad-input test and the
// fuzzers' seed corpus, so neither ships a binary file.
#pragma once

#include "sqlitedb.h"

#include <QFile>
#include <QString>

#include <string>

namespace gmltest {

// Writes the export to `path` (replacing it); `extraSql` runs last (to damage it). False with
// the reason in *error when SQLite refuses.
inline bool writeNsysExport(const QString &path, int rows, const std::string &extraSql = {},
                            QString *error = nullptr)
{
    QFile::remove(path);
    gml::SqliteDb db;
    if (!db.open(path, false, error))
        return false;
    std::string sql =
        "BEGIN;"
        "CREATE TABLE META_DATA_EXPORT(name TEXT, value TEXT);"
        "INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION_MAJOR','3');"
        "CREATE TABLE TARGET_INFO_SESSION_START_TIME(utcEpochNs INTEGER, utcTime TEXT, localTime "
        "TEXT);"
        "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES(1700000000000000000, '', '');"
        "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO StringIds VALUES(1,'cudaLaunchKernel_v7000'),(2,'void "
        "gemm<float>(int)'),(3,'gemm');"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INT, end INT, eventClass INT, globalTid "
        "INT,"
        " correlationId INT, nameId INT, returnValue INT, callchainId INT);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT, deviceId INT, contextId INT,"
        " streamId INT, correlationId INT, globalPid INT, demangledName INT, shortName INT,"
        " gridX INT, gridY INT, gridZ INT, blockX INT, blockY INT, blockZ INT,"
        " registersPerThread INT, staticSharedMemory INT, dynamicSharedMemory INT);";
    const long long pid = 4242, gtid = (pid << 24) | 4242, gpid = pid << 24;
    for (int i = 0; i < rows; ++i) {
        const long long t = 1'000'000LL + i * 10'000LL;
        sql += "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(" + std::to_string(t) + "," +
               std::to_string(t + 3'000) + ",1," + std::to_string(gtid) + "," +
               std::to_string(i + 1) + ",1,0,0);";
        sql += "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(" + std::to_string(t + 4'000) + "," +
               std::to_string(t + 9'000) + ",0,1,7," + std::to_string(i + 1) + "," +
               std::to_string(gpid) + ",2,3,128,1,1,256,1,1,32,0,1024);";
    }
    sql += extraSql;
    sql += "COMMIT;";
    return db.exec(sql, error);
}

} // namespace gmltest
