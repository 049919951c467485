select "b"."id", (select coalesce(sum("c"."n"), 0) as "total"
from "build_counts" as "c") as "total"
from "builds" as "b"
order by "b"."version_name" desc nulls first, "b"."id" desc
limit max(0, min(?, ((select coalesce(sum("c"."n"), 0) as "total"
from "build_counts" as "c")) - ?))
offset max(0, ((select coalesce(sum("c"."n"), 0) as "total"
from "build_counts" as "c")) - ? - ?)
