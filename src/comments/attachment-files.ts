import { Injectable, OnModuleInit } from '@nestjs/common';
import { StoredImagesService } from '../images/stored-images.service';
import { CommentsService } from './comments.service';

/** Attachment files no comment references (their build's comments were cascaded) are swept as unreferenced uploads. */
@Injectable()
export class AttachmentFiles implements OnModuleInit {
  constructor(
    private readonly comments: CommentsService,
    private readonly images: StoredImagesService,
  ) {}

  onModuleInit(): void {
    this.images.registerOwner('comments', () => this.comments.attachmentPaths());
  }
}
