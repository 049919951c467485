select count(*) as "total"
from "build_provenance" as "pv"
where "pv"."commit_sha" >= ? and "pv"."commit_sha" < ? and "pv"."commit_sha" like ?
