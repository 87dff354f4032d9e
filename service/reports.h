// Reports: the read-only questions people ask of a database — the canned
// audits (`retrace audit`) and one SQL statement over the documented views
// (`retrace query`). Both open the database read-only (query/sql_query.h):
// a statement that would write is refused by name.
#ifndef RETRACE_SERVICE_REPORTS_H_
#define RETRACE_SERVICE_REPORTS_H_

#include <functional>
#include <string>

#include "engine/base/status.h"
#include "query/audit.h"
#include "query/sql_query.h"
#include "service/catalog.h"

namespace retrace::service {

// One of query::AuditReports(). `interrupt` returning true stops it (DeadlineExceeded).
Result<query::QueryTable> RunAudit(const Catalog& catalog, const std::string& report,
                                   const query::AuditFilters& filters, const std::function<bool()>& interrupt);

// One statement over the views only (a storage table is refused by name).
Result<query::QueryTable> RunQuery(const Catalog& catalog, const std::string& sql,
                                   const std::function<bool()>& interrupt);

}  // namespace retrace::service

#endif  // RETRACE_SERVICE_REPORTS_H_
