select "b"."id", (select count(*) as "total"
from "builds" as "b"
where "b"."gate_state" = ?) as "total"
from "builds" as "b"
where "b"."gate_state" = ?
order by "b"."uploaded_at" desc, "b"."id" desc
limit ?
offset ?
