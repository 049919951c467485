select count(*) as "total"
from "builds" as "b"
where "b"."gate_state" = $1
