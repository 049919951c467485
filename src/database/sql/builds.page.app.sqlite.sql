select "b"."id", (select coalesce(sum("c"."n"), 0) as "total"
from "build_counts" as "c"
where "c"."app_id" = ?) as "total"
from "builds" as "b"
where "b"."app_id" = ?
order by "b"."uploaded_at" desc, "b"."id" desc
limit ?
offset ?
