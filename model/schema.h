// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string_view>
#include <vector>

namespace gml::schema {

// The project file's schema, as forward migrations. migrations()[i] takes user_version i to i+1.
// Never edit a released migration; append a new one.
const std::vector<std::string_view> &migrations();
inline int currentVersion() { return int(migrations().size()); }

} // namespace gml::schema
