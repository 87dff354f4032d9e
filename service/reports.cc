#include "service/reports.h"

namespace retrace::service {

Result<query::QueryTable> RunAudit(const Catalog& catalog, const std::string& report,
                                   const query::AuditFilters& filters, const std::function<bool()>& interrupt) {
  ASSIGN_OR_RETURN(query::ReadOnlyDb db, catalog.OpenReadOnly());
  return query::RunAudit(db, report, filters, interrupt);
}

Result<query::QueryTable> RunQuery(const Catalog& catalog, const std::string& sql,
                                   const std::function<bool()>& interrupt) {
  ASSIGN_OR_RETURN(query::ReadOnlyDb db, catalog.OpenReadOnly());
  return db.Run(sql, {}, interrupt, query::QueryAccess::kViews);
}

}  // namespace retrace::service
