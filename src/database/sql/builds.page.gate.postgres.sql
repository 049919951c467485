select "b"."id", (select count(*) as "total"
from "builds" as "b"
where "b"."gate_state" = $1) as "total"
from "builds" as "b"
where "b"."gate_state" = $2
order by "b"."uploaded_at" desc, "b"."id" desc
limit $3
offset $4
