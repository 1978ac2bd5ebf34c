import { plainToInstance } from 'class-transformer';
import { AdCreateRequestDto } from './ad-create.dto';
import { adCreateJob, removeBackgroundJob, sceneCreateJob } from './job-request';
import { RemoveBackgroundRequestDto } from './remove-background.dto';
import { SceneCreateRequestDto } from './scene-create.dto';

const input = [{ image_url: 'https://images.example.com/p/1.jpg' }];

describe('job requests', () => {
  it('keeps the defaults of members a DTO declares but the client left out', () => {
    const ad = adCreateJob(plainToInstance(AdCreateRequestDto, { input, creative: { platform: 'tiktok' } }));
    expect(ad.options.creative).toEqual({ platform: 'tiktok', goal: 'conversion', style: 'minimal' });
    const scene = sceneCreateJob(plainToInstance(SceneCreateRequestDto, { input, scene: { prompt: 'On a beach' } }));
    expect(scene.options.scene).toEqual({ prompt: 'On a beach', shadow: 'natural' });
    const cutout = removeBackgroundJob(plainToInstance(RemoveBackgroundRequestDto, { input, background: { type: 'white' } }));
    expect(cutout.options.background).toEqual({ type: 'white', shadow: 'none' });
  });

  it('lets what the client sent win over a default', () => {
    const ad = adCreateJob(plainToInstance(AdCreateRequestDto, { input, creative: { platform: 'tiktok', goal: 'awareness', style: 'bold' } }));
    expect(ad.options.creative).toMatchObject({ goal: 'awareness', style: 'bold' });
  });
});
