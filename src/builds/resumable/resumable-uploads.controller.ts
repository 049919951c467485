import { Controller, Delete, Head, Options, Param, Patch, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiCreatedResponse, ApiHeader, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { binaryFile } from '../../common/api/files';
import { ApiErrors } from '../../common/api/responses';
import { Auth } from '../../common/auth/auth.decorator';
import { WRITER_ROLES } from '../../common/auth/role';
import { BuildSummary } from '../builds.mapper';
import { ResumableUploadsService } from './resumable-uploads.service';

/** Who may upload a build, as on POST /builds. */
const AS_POST_BUILDS = { cookie: true, pat: 'builds:write', roles: WRITER_ROLES } as const;

const TusResumable = () => ApiHeader({ name: 'Tus-Resumable', required: true, schema: { type: 'string', enum: ['1.0.0'] } });
const UploadId = () => ApiParam({ name: 'id', type: String, description: 'the upload id, the last segment of its Location' });

/**
 * tus 1.0 resumable uploads of builds (docs/builds.md "Resumable uploads"): create with POST, send
 * bytes with PATCH from the offset HEAD reports, abandon with DELETE. The PATCH that completes the
 * upload answers 201 with the same build summary as POST /builds. The service speaks the protocol.
 */
@ApiTags('builds')
@Controller('uploads/builds')
export class ResumableUploadsController {
  constructor(private readonly uploads: ResumableUploadsService) {}

  /** tus discovery: version, extensions and Tus-Max-Size (the build size limit); nothing about uploads. */
  @Options()
  @Auth({ public: true })
  @ApiResponse({ status: 204, description: 'Tus-Version, Tus-Extension (creation, termination, expiration) and Tus-Max-Size headers' })
  async options(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.uploads.handle(req, res);
  }

  @Post()
  @Auth(AS_POST_BUILDS)
  @TusResumable()
  @ApiHeader({ name: 'Upload-Length', required: true, description: 'the file size in bytes, at most SVC_MAX_BUILD_BYTES' })
  @ApiHeader({
    name: 'Upload-Metadata',
    required: true,
    description:
      'comma-separated `key base64(value)` pairs: `filename` (required; the file type is read from it as for POST /builds) and the POST /builds fields `status`, `label`, `platform`, `app_id`',
  })
  @ApiResponse({ status: 201, description: 'created, empty body; Location: the upload URL, Upload-Expires: 24 h after creation' })
  @ApiErrors(400, 401, 403, 412, 413, 507)
  async create(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.uploads.handle(req, res);
  }

  @Head(':id')
  @Auth(AS_POST_BUILDS)
  @TusResumable()
  @UploadId()
  @ApiResponse({ status: 200, description: 'Upload-Offset: the bytes received so far; Upload-Length; Upload-Metadata' })
  @ApiErrors(401, 403, 404, 410, 412)
  async offset(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.uploads.handle(req, res, id);
  }

  @Patch(':id')
  @Auth(AS_POST_BUILDS)
  @TusResumable()
  @UploadId()
  @ApiHeader({ name: 'Upload-Offset', required: true, description: 'must equal the offset HEAD reports' })
  @ApiConsumes('application/offset+octet-stream')
  @ApiBody({ schema: binaryFile('the next bytes of the file, from Upload-Offset') })
  @ApiResponse({ status: 204, description: 'bytes stored; Upload-Offset: the new offset' })
  @ApiCreatedResponse({ type: BuildSummary, description: 'the last byte arrived: the build, filed as by POST /builds' })
  @ApiErrors(400, 401, 403, 404, 409, 410, 412, 413, 507)
  async append(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.uploads.handle(req, res, id);
  }

  @Delete(':id')
  @Auth(AS_POST_BUILDS)
  @TusResumable()
  @UploadId()
  @ApiResponse({ status: 204, description: 'the partial upload and its bytes are removed' })
  @ApiErrors(401, 403, 404, 412)
  async terminate(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.uploads.handle(req, res, id);
  }
}
