select coalesce(sum("c"."n"), 0) as "total"
from "build_counts" as "c"
where "c"."status_key" = $1
