with "m" as materialized (select "b"."id", "b"."uploaded_at" as "k"
from "builds" as "b"
where "b"."id" in (select "pv"."build_id"
from "build_provenance" as "pv"
where "pv"."commit_sha" >= $1 and "pv"."commit_sha" < $2 and "pv"."commit_sha" like $3)) select "m"."id", (select count(*) as "n"
from "m") as "total"
from "m"
order by "m"."k" desc, "m"."id" desc
limit $4
offset $5
