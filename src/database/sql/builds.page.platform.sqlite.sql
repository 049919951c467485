select "b"."id", (select coalesce(sum("c"."n"), 0) as "total"
from "build_counts" as "c"
where "c"."platform" = ?) as "total"
from "builds" as "b"
where "b"."platform" = ?
order by "b"."uploaded_at" desc, "b"."id" desc
limit ?
offset ?
