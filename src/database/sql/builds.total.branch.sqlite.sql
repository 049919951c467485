select coalesce(sum("bc"."n"), 0) as "total"
from "build_branch_counts" as "bc"
where "bc"."branch" = ?
