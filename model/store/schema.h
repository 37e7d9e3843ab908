// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <functional>
#include <string_view>
#include <vector>

namespace gml {
class SqliteDb;
}

namespace gml::schema {

// The project file's schema, as forward migrations. migrations()[i] takes user_version i to i+1.
// Never edit a released migration; append a new one.
const std::vector<std::string_view> &migrations();
inline int currentVersion()
{
    return int(migrations().size());
}
// The part of the migration to `version` that SQL alone cannot do, run after its SQL inside the
// same transaction (version 3: slice rows into chunks). `progress(done, total)` is called as
// the summaries of version 7 are made, track by track (return false to stop: the migration
// then fails with "cancelled" and rolls back).
[[nodiscard]] bool migrateData(int version, SqliteDb &db, QString *error,
                               const std::function<bool(int, int)> &progress = {});

} // namespace gml::schema
