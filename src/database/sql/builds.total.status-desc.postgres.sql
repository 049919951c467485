select coalesce(sum("c"."n"), 0) as "total"
from "build_counts" as "c"
