#include "tests/support/sqlitefixture.h"

#include <sqlite3.h>

namespace rs::test {

std::string execSql(const QString& path, const std::string& sql)
{
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.toStdString().c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                        nullptr) != SQLITE_OK) {
        std::string e = db ? sqlite3_errmsg(db) : "cannot open";
        sqlite3_close(db);
        return e;
    }
    char* err = nullptr;
    std::string out;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        out = err ? err : "error";
        sqlite3_free(err);
    }
    sqlite3_close(db);
    return out;
}

std::string sqlQuote(const std::string& s)
{
    std::string q = "'";
    for (char c : s) {
        if (c == '\'') q.push_back('\'');
        q.push_back(c);
    }
    q.push_back('\'');
    return q;
}

} // namespace rs::test
