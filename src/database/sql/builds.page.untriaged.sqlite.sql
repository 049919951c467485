select "b"."id", (select coalesce(sum("c"."n"), 0) as "total"
from "build_counts" as "c"
where "c"."status_key" = ?) as "total"
from "builds" as "b"
where "b"."status_label" is null
order by "b"."uploaded_at" desc, "b"."id" desc
limit ?
offset ?
