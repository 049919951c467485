select "b"."id", (select coalesce(sum("c"."n"), 0) as "total"
from "build_counts" as "c") as "total"
from "builds" as "b"
order by "b"."version_name" desc nulls first, "b"."id" desc
limit greatest(0, least($1, ((select coalesce(sum("c"."n"), 0) as "total"
from "build_counts" as "c")) - $2))
offset greatest(0, ((select coalesce(sum("c"."n"), 0) as "total"
from "build_counts" as "c")) - $3 - $4)
