select "b"."id", (select coalesce(sum("c"."n"), 0) as "total"
from "build_counts" as "c") as "total"
from "builds" as "b"
order by "b"."status_label" desc nulls last, "b"."id" desc
limit ?
offset ?
